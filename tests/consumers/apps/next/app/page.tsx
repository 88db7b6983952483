export default function Home() {
  return <p>consumer</p>;
}
